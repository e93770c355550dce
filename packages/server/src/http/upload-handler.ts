import type { Services } from '../services';
import type { PolicyClaims } from '../services/uploads';

/**
 * What each upload purpose does with the bytes once the policy checks out. `audit` writes the upload's
 * audit record: each handler calls it in the same unit of work as its catalog write. Declared here, below the
 * routes, so that the route files that add purposes (map assets) and the one that runs them import not each other.
 */
export type UploadHandler = (services: Services, claims: PolicyClaims, contentType: string, body: NodeJS.ReadableStream, audit: () => Promise<unknown>) => Promise<unknown>;
