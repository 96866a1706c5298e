// @workspace-platform/client: a typed client of the workspace knowledge platform's REST API.
//
//   import { PlatformClient, ProblemError } from '@workspace-platform/client';
//   const platform = new PlatformClient({ baseUrl: 'http://localhost:8080', credentials: { apiKey: process.env.PLATFORM_KEY! } });
//   const ws = await platform.post('/workspaces', { body: { name: 'Research' } });
//   const found = await platform.post('/artifacts/search', { body: { query: 'budget' } });
export { PlatformClient, type PlatformClientOptions } from './client.js';
export type { Credentials } from './credentials.js';
export { ConnectionError, DeadlineError, PlatformError, ProblemError, TokenError, problemTypePrefix, type Problem } from './errors.js';
export type { components, operations, paths } from './openapi.js';
export type {
  Answer,
  CallOptions,
  Method,
  PathParams,
  PathsWith,
  PlatformResponse,
  QueryParams,
  RequestBody,
  RequestOptions,
} from './types.js';

import type { components } from './openapi.js';
/** The API's named schemas (`Schema<'Artifact'>`, `Schema<'Commit'>`, …). */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
