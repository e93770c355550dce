import { inject } from 'vitest';
import { StudioClient } from '@studio/client';

export const baseUrl = () => inject('baseUrl');

export async function signedIn(email: string, password: string): Promise<StudioClient> {
  const client = new StudioClient({ baseUrl: baseUrl() });
  await client.signIn(email, password);
  return client;
}

export const asAdmin = () => signedIn(inject('adminEmail'), inject('adminPassword'));

/** A word that keeps this run's names apart from other runs' on the shared server. */
export const unique = () => Math.random().toString(36).slice(2, 8);

/** The admin invites `email` into `orgId` and the invitee accepts through the API. */
export async function createUser(admin: StudioClient, orgId: string, name: string, email: string, password = 'e2e-password-123') {
  const invitation = await admin.admin.invite(orgId, email, 'maker');
  const client = new StudioClient({ baseUrl: baseUrl() });
  const session = await client.acceptInvitation(invitation.token, name, password);
  return { client, user: session.user, email, password };
}

/** A maker in an organization of their own (named `team` and a unique word), through the administrator. */
export async function makerInNewTeam(team: string, name: string) {
  const admin = await asAdmin();
  const org = await admin.admin.createOrganization(`${team} ${unique()}`);
  return createUser(admin, org.id, name, `${name.split(' ')[0]!.toLowerCase()}.${unique()}@e2e.studio.test`);
}
