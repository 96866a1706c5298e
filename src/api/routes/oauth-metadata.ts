import { scopes } from '../../identity/principal.js';
import { mcpPath, publicBase } from '../public-url.js';
import { idParam, parse } from '../validate.js';
import type { AppContext } from '../context.js';
import type { RouteDef } from '../route.js';
import { authorizationServerMetadataSchema, protectedResourceMetadataSchema } from '../../presenters/discovery.js';

/** Cached for five minutes, separately for each name the API is reached by (publicBase depends on it). */
function cacheable(ctx: AppContext): void {
  ctx.set('Cache-Control', 'public, max-age=300');
  for (const header of ['Host', 'X-Forwarded-Host', 'X-Forwarded-Proto']) ctx.vary(header);
}

/** RFC 9728 metadata of one of the API's protected resources, all served by this authorization server. */
const resourceMetadata = (base: string, resource: string) => ({
  resource,
  authorization_servers: [base],
  bearer_methods_supported: ['header'],
  scopes_supported: [...scopes],
  resource_name: 'Workspace knowledge platform',
  resource_documentation: `${base}/.well-known/mcp.json`,
});

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
      ctx.body = resourceMetadata(base, path.endsWith(mcpPath) ? `${base}${mcpPath}` : base);
    },
  })),
  {
    method: 'get',
    path: `/.well-known/oauth-protected-resource${mcpPath}/clients/:id`,
    access: 'public',
    doc: {
      summary: "An MCP client configuration endpoint's protected resource metadata (RFC 9728)",
      description:
        'Each configuration is a resource of its own (issue #36): a token issued for it is accepted only on its endpoint. ' +
        'The same answer for any id, whether or not such a configuration exists (anonymous callers learn nothing of it).',
      tags: ['discovery'],
      response: protectedResourceMetadataSchema,
    },
    handler: (ctx) => {
      const { id } = parse(idParam, ctx.params, 'path');
      const base = publicBase(ctx, ctx.services.config);
      cacheable(ctx);
      // scopes_supported stays the full list: narrowing it to the configuration's scopes would mean reading
      // the configuration for an anonymous caller, telling who asks whether it exists and what it grants.
      // The endpoint applies the configuration's scopes to whatever the token carries.
      ctx.body = resourceMetadata(base, `${base}${mcpPath}/clients/${id}`);
    },
  },
];
