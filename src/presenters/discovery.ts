/** What the public discovery and health routes answer: no token needed, cached by clients and balancers. */
import { z } from 'zod';

export const healthSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });

/** `GET /readyz`: every dependency answered (a 503 problem names those that did not). */
export const readinessSchema = z
  .object({
    status: z.literal('ready'),
    checks: z.record(z.string(), z.enum(['up', 'down'])),
  })
  .meta({ id: 'Readiness' });

/** `GET /.well-known/mcp.json`. */
export const mcpDiscoverySchema = z
  .object({
    name: z.string(),
    version: z.string(),
    endpoints: z.object({ streamable_http: z.string() }),
    tools: z.array(z.string()),
    icon: z.string(),
  })
  .meta({ id: 'McpDiscovery' });

/** RFC 8414 authorization server metadata. */
export const authorizationServerMetadataSchema = z
  .object({
    issuer: z.string(),
    authorization_endpoint: z.string(),
    token_endpoint: z.string(),
    registration_endpoint: z.string(),
    revocation_endpoint: z.string(),
    jwks_uri: z.string(),
    response_types_supported: z.array(z.string()),
    response_modes_supported: z.array(z.string()),
    grant_types_supported: z.array(z.string()),
    token_endpoint_auth_methods_supported: z.array(z.string()),
    revocation_endpoint_auth_methods_supported: z.array(z.string()),
    code_challenge_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    client_id_metadata_document_supported: z.boolean(),
    authorization_response_iss_parameter_supported: z.boolean(),
    service_documentation: z.string(),
  })
  .meta({ id: 'AuthorizationServerMetadata' });

/** RFC 9728 protected resource metadata. */
export const protectedResourceMetadataSchema = z
  .object({
    resource: z.string(),
    authorization_servers: z.array(z.string()),
    bearer_methods_supported: z.array(z.string()),
    scopes_supported: z.array(z.string()),
    resource_name: z.string(),
    resource_documentation: z.string(),
  })
  .meta({ id: 'ProtectedResourceMetadata' });

/** RFC 7591 client information: the registered metadata, the client id, and a secret for a confidential client. */
export const registeredClientSchema = z
  .object({
    client_id: z.string(),
    client_id_issued_at: z.number().int(),
    client_secret: z.string().optional(),
    client_secret_expires_at: z.number().int().optional(),
    client_name: z.string(),
    redirect_uris: z.array(z.string()),
    grant_types: z.array(z.string()),
    token_endpoint_auth_method: z.enum(['none', 'client_secret_post', 'client_secret_basic']),
    client_uri: z.string().optional(),
    logo_uri: z.string().optional(),
    scope: z.string().optional(),
    software_id: z.string().optional(),
    software_version: z.string().optional(),
    response_types: z.array(z.string()),
  })
  .meta({ id: 'RegisteredClient' });

/** An OAuth error (RFC 6749 §5.2), which the token, revocation and registration endpoints answer instead of problem+json. */
export const oauthErrorSchema = z.object({ error: z.string(), error_description: z.string().optional() }).meta({ id: 'OAuthError' });
