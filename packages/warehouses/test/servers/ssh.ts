import net from 'node:net';
import { Server, utils } from 'ssh2';
import { sshFingerprint } from '../../src/ssh';

/**
 * A bastion for tunnel tests: an SSH server (the ssh2 package's own) on a loopback port that accepts one
 * user by public key or password and forwards `direct-tcpip` channels (what `ssh -L` and the studio's
 * tunnels ask for) to the address asked (`names`: host names only it resolves), recording each. Its host key and the user's key pair are made
 * fresh for each run.
 */
/**
 * An ed25519 key pair from ssh2's generator that ssh2's own parser reads back. About 1 in 400 of the keys
 * it makes, it then refuses ("Malformed OpenSSH private key"; 13 of 5,000 measured on 2026-11-26), which
 * failed a whole test file at random: such a key is drawn again.
 */
export function sshKeyPair(): { private: string; public: string } {
  for (;;) {
    const pair = utils.generateKeyPairSync('ed25519');
    if (!(utils.parseKey(pair.private) instanceof Error) && !(utils.parseKey(pair.public) instanceof Error)) return pair;
  }
}

export async function startBastion(opts: { user: string; password: string; names?: Record<string, string> }) {
  const hostKey = sshKeyPair();
  const userKey = sshKeyPair();
  const allowed = utils.parseKey(userKey.public);
  if (allowed instanceof Error) throw allowed;
  const forwarded: string[] = [];
  const server = new Server({ hostKeys: [hostKey.private] }, (client) => {
    client.on('error', () => undefined);
    client.on('authentication', (ctx) => {
      if (ctx.username !== opts.user) return ctx.reject();
      if (ctx.method === 'password') return ctx.password === opts.password ? ctx.accept() : ctx.reject();
      if (ctx.method !== 'publickey' || ctx.key.algo !== allowed.type || !ctx.key.data.equals(allowed.getPublicSSH())) return ctx.reject(['publickey', 'password']);
      // The first offer has no signature (may this key be used?); the second proves the key is held.
      if (!ctx.signature) return ctx.accept();
      return allowed.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) === true ? ctx.accept() : ctx.reject();
    });
    client.on('ready', () => {
      client.on('tcpip', (accept, _reject, info) => {
        forwarded.push(`${info.destIP}:${info.destPort}`);
        const channel = accept();
        // Names only the bastion knows (a private network's), as its own resolver would answer them.
        const socket = net.connect(info.destPort, opts.names?.[info.destIP] ?? info.destIP);
        socket.on('error', () => channel.destroy());
        channel.on('error', () => socket.destroy());
        channel.pipe(socket).pipe(channel);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const parsedHost = utils.parseKey(hostKey.public);
  if (parsedHost instanceof Error) throw parsedHost;
  return {
    port: (server.address() as net.AddressInfo).port,
    privateKey: userKey.private,
    /** The host key's fingerprint, as `ssh-keygen -l` prints it. */
    fingerprint: sshFingerprint(parsedHost.getPublicSSH()),
    forwarded,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
