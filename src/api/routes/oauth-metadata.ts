import { scopes } from '../../identity/principal.js';
import { mcpPath } from '../middleware/authenticate.js';
import { publicBase } from '../public-url.js';
import type { AppContext } from '../context.js';
import type { RouteDef } from '../route.js';
import { authorizationServerMetadataSchema, protectedResourceMetadataSchema } from '../../presenters/discovery.js';

/** Cached for five minutes, separately for each name the API is reached by (publicBase depends on it). */
function cacheable(ctx: AppContext): void {
  ctx.set('Cache-Control', 'public, max-age=300');
  for (const header of ['Host', 'X-Forwarded-Host', 'X-Forwarded-Proto']) ctx.vary(header);
}

/**
 * RFC 8414 authorization server metadata and RFC 9728 protected resource metadata. Both name the
 * URL the client used (publicBase): clients check that the resource and issuer they are told are the
 * ones they asked.
 */
export const oauthMetadataRoutes: RouteDef[] = [
  {
    method: 'get',
    path: '/.well-known/oauth-authorization-server',
    access: 'public',
    doc: { summary: 'OAuth authorization server metadata (RFC 8414)', tags: ['discovery'], response: authorizationServerMetadataSchema },
    handler: (ctx) => {
      const base = publicBase(ctx, ctx.services.config);
      cacheable(ctx);
      ctx.body = {
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/auth/token`,
        registration_endpoint: `${base}/oauth/register`,
        revocation_endpoint: `${base}/oauth/revoke`,
        jwks_uri: `${base}/.well-known/jwks.json`,
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
        token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
        revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
        code_challenge_methods_supported: ['S256'],
        scopes_supported: [...scopes],
        client_id_metadata_document_supported: true,
        authorization_response_iss_parameter_supported: true,
        service_documentation: `${base}/.well-known/mcp.json`,
      };
    },
  },
  ...['/.well-known/oauth-protected-resource', `/.well-known/oauth-protected-resource${mcpPath}`].map((path): RouteDef => ({
    method: 'get',
    path,
    access: 'public',
    doc: { summary: 'OAuth protected resource metadata (RFC 9728)', tags: ['discovery'], response: protectedResourceMetadataSchema },
    handler: (ctx) => {
      const base = publicBase(ctx, ctx.services.config);
      cacheable(ctx);
      ctx.body = {
        resource: path.endsWith(mcpPath) ? `${base}${mcpPath}` : base,
        authorization_servers: [base],
        bearer_methods_supported: ['header'],
        scopes_supported: [...scopes],
        resource_name: 'Workspace knowledge platform',
        resource_documentation: `${base}/.well-known/mcp.json`,
      };
    },
  })),
];
