// A workspace's events as they happen. (Skeleton: filled in by the events work.)
export function WorkspaceEvents({ workspaceId }: { workspaceId: string }) {
  return <section aria-label="Events" data-workspace={workspaceId} />;
}
