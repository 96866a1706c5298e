import { scopes } from '../../identity/principal.js';
import type { RouteDef } from '../route.js';
import type { JsonSchema } from './json-schema.js';

const scopeDescriptions: Record<(typeof scopes)[number], string> = {
  'artifact:read': 'Read artifacts, workspaces, collections, commits and secrets (names only)',
  'artifact:write': 'Create and edit drafts, request commits, store secrets',
  'artifact:manage': 'Archive, restore, delete; manage shares',
  'artifact:invoke': 'Invoke tools, agents and LLMs; decide on their proposals',
  'search:read': 'Search artifacts',
  'stream:read': "Read a workspace's events and their live stream; follow a stream's live status and what it recorded",
  'stream:ingest': "Start and stop a stream's recording (RTMP ingest)",
  'events:subscribe': "Subscribe a registered server to a workspace's events",
};

/**
 * How src/api/middleware/authenticate.ts takes credentials: `Authorization: Bearer <token>`, where
 * the token is a JWT (a person's, a server credential's, an API key's exchange, an OAuth client's) or
 * an API key itself. OAuth 2.0 says where tokens come from; fine scopes
 * (`resource|tool|prompt:<mime>:<action>`) narrow these to content types.
 */
export function securitySchemes(apiUri: string): Record<string, JsonSchema> {
  const scopeMap = Object.fromEntries(scopes.map((s) => [s, scopeDescriptions[s]]));
  return {
    bearerToken: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        "An RS256 access token: a person's from `POST /auth/login` (every scope), a server credential's from `POST /auth/token`, " +
        "an API key's from `POST /api-keys/exchange`. Server credentials and API keys may send `X-On-Behalf-Of: <person id>` to act for a person who consented.",
    },
    apiKey: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'pk_<id>_<secret>',
      description: 'An API key (`POST /api-keys`) sent as the bearer token itself; it holds the scopes it was created with.',
    },
    oauth2: {
      type: 'oauth2',
      description:
        'OAuth 2.1: authorization code with PKCE (S256) for clients acting for a person, client credentials for server credentials.',
      flows: {
        authorizationCode: {
          authorizationUrl: `${apiUri}/oauth/authorize`,
          tokenUrl: `${apiUri}/auth/token`,
          refreshUrl: `${apiUri}/auth/token`,
          scopes: scopeMap,
        },
        clientCredentials: { tokenUrl: `${apiUri}/auth/token`, scopes: scopeMap },
      },
    },
  };
}

/**
 * A route's security requirement from its `access`: none for public routes; a scope from any
 * credential that holds it; a person's own token for 'human' and 'admin' (never a server credential,
 * API key or OAuth client: they answer 403 human-required).
 */
export function securityOf(access: RouteDef['access']): Record<string, string[]>[] {
  if (access === 'public') return [];
  if (access === 'human' || access === 'admin') return [{ bearerToken: [] }];
  const needed = access === 'authenticated' ? [] : [access];
  return [{ bearerToken: needed }, { apiKey: needed }, { oauth2: needed }];
}

/** What the route's description says of its access, for people reading the reference. */
export function accessNote(access: RouteDef['access']): string {
  switch (access) {
    case 'public':
      return 'No credentials.';
    case 'authenticated':
      return 'Any valid token.';
    case 'human':
      return "A person's own token (not a server credential, API key or OAuth client).";
    case 'admin':
      return "An administrator's own token.";
    default:
      return `Needs the \`${access}\` scope.`;
  }
}
