// The project's dependency rules, checked by `npm test` (test/architecture/dependency-rules.unit.test.ts)
// and by `npx depcruise src`. docs/architecture.md explains the layers; keep the two in step.

/** The layers, lowest first: a module imports its own layer and the ones below it, never one above. */
const layers = [
  { name: 'kernel', path: '^src/kernel/' },
  // The access model: who a principal is and what a grant allows, pure functions the store applies in its queries.
  { name: 'access model', path: '^src/identity/(principal|grants)\\.ts$' },
  { name: 'engines', path: '^src/(store|search|llm|net|temporal|stdio-servers|rate-limits|console|observability|relay-protocol|media)/' },
  { name: 'domain', path: '^src/(identity|artifacts|commits|invocations|connections|events|mcp-client|imports|relay)/' },
  { name: 'contracts', path: '^src/workflows/contracts/' },
  // Automations start invocations from the event workflow's activity, as the workflow clients do from the API.
  { name: 'workflow clients', path: '^src/(workflow-clients|automations)/' },
  { name: 'activities', path: '^src/activities/' },
  { name: 'presenters', path: '^src/presenters/' },
  { name: 'operations', path: '^src/operations/' },
  { name: 'surfaces', path: '^src/(api|mcp-server)/' },
  { name: 'main', path: '^src/main/' },
];

const names = (list) => list.map((l) => l.name).join(', ');

/**
 * Layer `i` may not import the layers above it. A path may match two layers' patterns
 * (identity/grants.ts and identity/): the lower layer wins. The engines store and search the
 * domain's records, so they may name the domain's types (never run its code); nothing above it.
 */
const layerRules = layers.slice(0, -1).flatMap((layer, i) => {
  const above = layers.slice(i + 1);
  const own = { pathNot: layers.slice(0, i + 1).map((l) => l.path) };
  const rule = (name, to, comment) => ({ name, comment, severity: 'error', from: { path: layer.path }, to: { ...own, ...to } });
  if (layer.name !== 'engines') {
    return [rule(`layer-${layer.name}`, { path: above.map((l) => l.path) }, `${layer.name} sits below ${names(above)}`)];
  }
  const [domain, ...higher] = above;
  return [
    rule('layer-engines', { path: higher.map((l) => l.path) }, `the engines sit below ${names(above)}`),
    rule('layer-engines', { path: domain.path, dependencyTypesNot: ['type-only'] }, 'the engines may name the domain types only'),
  ];
});

/** Pure code that workflows may run besides their own files: deterministic, no I/O, no Node built-ins. */
const workflowSafe = [
  '^src/temporal/search-attributes\\.ts$',
  '^src/mcp-client/failure\\.ts$',
  '^src/observability/workflow-interceptors\\.ts$', // bundled as workflow interceptors (workflowTracingModules)
  '^src/temporal/codec/failure-converter\\.ts$', // bundled as the workflows' failure converter
];
/**
 * The npm packages workflow code may run (anything else as types only): the tracing interceptors run
 * Temporal's OpenTelemetry workflow interceptors.
 */
const workflowPackages = 'node_modules/(@temporalio/(workflow|common|interceptors-opentelemetry)|@opentelemetry/[^/]+)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles, type-only imports included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'relay-host-stands-alone',
      comment:
        "The desktop relay (src/relay-host) runs on a person's machine: it speaks the relay protocol and sandboxes servers, and nothing of the platform's store, API or workflows comes with it.",
      severity: 'error',
      from: { path: '^src/relay-host/' },
      to: { path: '^src/', pathNot: ['^src/(relay-host|relay-protocol|stdio-servers|kernel)/'] },
    },
    {
      name: 'nothing-runs-the-relay-host',
      comment: 'The platform never imports the desktop relay program.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/relay-host/' },
      to: { path: '^src/relay-host/' },
    },
    {
      name: 'workflow-code-is-pure',
      comment: 'Workflow code runs in a deterministic sandbox: it imports its contracts and pure code, and activities as types only.',
      severity: 'error',
      from: { path: ['^src/workflows/', ...workflowSafe] },
      to: {
        path: ['^src/', 'node_modules/'],
        pathNot: ['^src/workflows/', ...workflowSafe, workflowPackages],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'workflow-code-has-no-node',
      comment: 'Workflow code may not use Node built-ins (the bundler would reject them at worker start).',
      severity: 'error',
      from: { path: ['^src/workflows/', ...workflowSafe] },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'clients-import-contracts-only',
      comment:
        'Outside the bundle, code starts or signals a workflow through its contract (workflows/contracts/), never the workflow file.',
      severity: 'error',
      from: { path: '^(src|test|bench|scripts|temporal-dev)/', pathNot: '^src/workflows/' },
      to: { path: '^src/workflows/', pathNot: ['^src/workflows/contracts/'] },
    },
    {
      name: 'contracts-are-types-and-messages',
      comment: 'A contract holds ids, message definitions and types: it imports other modules as types only, and never a workflow file.',
      severity: 'error',
      from: { path: '^src/workflows/contracts/' },
      to: { path: '^src/', pathNot: '^src/workflows/contracts/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'contracts-never-see-workflows',
      severity: 'error',
      from: { path: '^src/workflows/contracts/' },
      to: { path: '^src/workflows/', pathNot: '^src/workflows/contracts/' },
    },
    {
      name: 'mcp-client-and-server-apart',
      comment: 'The MCP client (to external servers) and the MCP server (/mcp) never import each other.',
      severity: 'error',
      from: { path: '^src/mcp-(client|server)/' },
      to: { path: '^src/mcp-(client|server)/', pathNot: '^src/mcp-$1/' },
    },
    {
      name: 'worker-never-loads-the-api',
      comment: "The worker process runs workflows and activities: nothing it loads reaches the API's routes, operations or MCP server.",
      severity: 'error',
      from: { path: '^src/main/worker\\.ts$' },
      to: { path: '^src/(api|operations|presenters|mcp-server)/', reachable: true },
    },
    {
      name: 'platform-sdk-stands-alone',
      comment: 'The platform SDK is copied into other services: it imports nothing but Node itself.',
      severity: 'error',
      from: { path: '^src/platform-sdk/' },
      to: { pathNot: ['^src/platform-sdk/'], dependencyTypesNot: ['core'] },
    },
    {
      name: 'source-never-imports-tests',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
