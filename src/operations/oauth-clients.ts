import type { OAuthClient } from '../identity/oauth/clients.js';
import type { Services } from './services.js';

/**
 * The authorization server's clients: registered ones (RFC 7591), the console, and clients whose
 * client_id is a metadata document URL.
 */

/**
 * The client a client_id names, as it is now, or null for one not registered here. Throws OAuthError
 * when a metadata document client_id cannot be used (unreachable, or not a valid document).
 */
export async function registeredClient(services: Services, clientId: string): Promise<OAuthClient | null> {
  return services.authorizationServer.client(clientId);
}

/** POST /oauth/register: a new client from its registration request (throws OAuthError for an invalid one). */
export async function registerClient(services: Services, body: unknown) {
  return services.authorizationServer.register(body);
}
