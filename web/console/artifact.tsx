// One artifact, opened (POST /artifacts/{id}/open) and rendered by its type; a type with a viewer is
// shown in the MCP Apps host (./viewer/frame). (Skeleton: filled in by the browse work.)
export function ArtifactView({ id }: { id: string }) {
  return <h1>Artifact {id}</h1>;
}
