// The console's page body for an application/vnd.platform.chat+json artifact (issue #36).
import type { Artifact } from '../browse-api';

export function ChatBody({ artifact }: { artifact: Artifact }) {
  return <pre class="content json">{artifact.content}</pre>;
}
