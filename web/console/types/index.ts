// The platform's own content types (SPEC §2.2) that the console shows as more than their JSON: each
// type's page body, by its base content type. ArtifactBody asks here first.
import type { FunctionComponent } from 'preact';
import type { Artifact } from '../browse-api';
import { ChatBody } from './chat';
import { ViewBody } from './view';
import { StreamBody } from './stream';
import { McpClientBody } from './mcp-client';

export const typeBodies: Record<string, FunctionComponent<{ artifact: Artifact }>> = {
  'application/vnd.platform.chat+json': ChatBody,
  'application/vnd.platform.view+json': ViewBody,
  'application/vnd.platform.stream+json': StreamBody,
  'application/vnd.platform.mcp-client+json': McpClientBody,
};
