/** Every invocation, MCP call, agent run or transform, has this workflow id: one namespace for `GET /invocations/{id}`. */
export const invocationWorkflowId = (invocationId: string) => `invoke-${invocationId}`;
