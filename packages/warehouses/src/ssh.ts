import { createHash } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { StudioError, onFirstUse } from '@studio/schema';

/** A bastion a warehouse is reached through (catalog connections' `sshHost`, `sshPort`, `sshUser`, `sshHostKey`). */
export interface SshTunnelConfig {
  host: string;
  port: number;
  user: string;
  /** The server's host key fingerprint (`SHA256:…`, as `ssh-keygen -l` prints it); checked when set. */
  hostKey?: string;
  privateKey?: string;
  password?: string;
}

/** A host key's fingerprint as OpenSSH prints it: SHA256 of the key blob, base64 without padding. */
export const sshFingerprint = (key: Buffer) => `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;

/** A forwarded channel to the warehouse, and how to close the SSH session it runs in. */
export interface Tunnel {
  /** A socket-like stream to the warehouse (what `pg` and others take as a connection). */
  stream: Duplex;
  close(): void;
}

/** ssh2, loaded on the first connection made through an SSH host. */
const ssh2 = onFirstUse(() => import('ssh2'));

/**
 * Opens an SSH session to the bastion at `address` (the checked address of `config.host`) and a
 * channel forwarded from there to `to` (resolved and reached by the bastion, as `ssh -L` does). The
 * session ends with `close()`, or when the channel closes. Authentication is by private key or
 * password; with `hostKey` set, a server whose key does not match is refused before any secret is sent.
 */
export async function openTunnel(config: SshTunnelConfig, address: string, to: { host: string; port: number }, timeoutMs: number): Promise<Tunnel> {
  if (!config.privateKey && !config.password) throw new StudioError(422, 'An SSH private key or password is needed to connect through the SSH host');
  const { Client } = await ssh2();
  return new Promise<Tunnel>((resolve, reject) => {
    const client = new Client();
    let mismatch: string | null = null;
    const fail = (e: Error) => {
      client.end();
      reject(mismatch ? new StudioError(422, mismatch) : new StudioError(422, `Could not connect through the SSH host ${config.host}: ${e.message}`));
    };
    client.once('error', fail);
    client.once('ready', () => {
      client.forwardOut('127.0.0.1', 0, to.host, to.port, (err, channel) => {
        if (err) return fail(new Error(`the SSH host could not reach ${to.host}:${to.port} (${err.message})`));
        client.removeListener('error', fail);
        // Later failures (the bastion going away) end the channel, which its user sees as a closed socket.
        client.on('error', () => channel.destroy());
        channel.once('close', () => client.end());
        resolve({ stream: asSocket(channel), close: () => client.end() });
      });
    });
    client.connect({
      host: address,
      port: config.port,
      username: config.user,
      privateKey: config.privateKey,
      password: config.password,
      readyTimeout: timeoutMs,
      hostVerifier: (key: Buffer) => {
        if (!config.hostKey || sshFingerprint(key) === config.hostKey) return true;
        mismatch = `The SSH host ${config.host} presented the key ${sshFingerprint(key)}, not the ${config.hostKey} this connection expects`;
        return false;
      },
    });
  });
}

/**
 * The few socket methods database clients call on the stream they are given (`pg` calls connect, then
 * waits for 'connect', and sets no-delay and keep-alive): the channel is already open, so connecting
 * only announces it.
 */
function asSocket(channel: Duplex): Duplex {
  return Object.assign(channel, {
    connect() {
      process.nextTick(() => channel.emit('connect'));
      return channel;
    },
    setNoDelay: () => channel,
    setKeepAlive: () => channel,
    ref: () => channel,
    unref: () => channel,
  });
}
