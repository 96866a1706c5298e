// The MCP Apps host (SPEC §4.7): a type's viewer, a `ui://` resource of the server that defines the
// type, in a sandboxed frame. (Skeleton: filled in by the viewer work.)

/** What POST /artifacts/{id}/open says about the artifact type's viewer, when it has one. */
export interface ViewerRef {
  server_id: string;
  uri: string;
}

export function ViewerFrame({ artifact, viewer }: { artifact: unknown; viewer: ViewerRef }) {
  return <section aria-label="Viewer" data-uri={viewer.uri} data-loaded={artifact ? 'yes' : 'no'} />;
}
