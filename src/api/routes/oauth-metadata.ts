import { scopes } from '../../identity/principal.js';
import type { RouteDef } from '../route.js';
import { mcpPath } from './mcp.js';

/** RFC 8414 authorization server metadata and RFC 9728 protected resource metadata. */
export const oauthMetadataRoutes: RouteDef[] = [
  {
    method: 'get',
    path: '/.well-known/oauth-authorization-server',
    access: 'public',
    handler: (ctx) => {
      const { apiUri } = ctx.services.config;
      ctx.body = {
        issuer: apiUri,
        token_endpoint: `${apiUri}/auth/token`,
        jwks_uri: `${apiUri}/.well-known/jwks.json`,
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_post'],
        response_types_supported: [],
        scopes_supported: [...scopes],
      };
    },
  },
  ...['/.well-known/oauth-protected-resource', `/.well-known/oauth-protected-resource${mcpPath}`].map((path): RouteDef => ({
    method: 'get',
    path,
    access: 'public',
    handler: (ctx) => {
      const { apiUri } = ctx.services.config;
      ctx.body = {
        resource: path.endsWith(mcpPath) ? `${apiUri}${mcpPath}` : apiUri,
        authorization_servers: [apiUri],
        bearer_methods_supported: ['header'],
        scopes_supported: [...scopes],
        resource_name: 'Workspace knowledge platform',
        resource_documentation: `${apiUri}/.well-known/mcp.json`,
      };
    },
  })),
];
