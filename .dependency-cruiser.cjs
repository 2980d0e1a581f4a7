/**
 * Import rules checked by `npm run lint:imports` (part of `npm test`). The engine's layers are
 * docs/architecture.md "Layers": each folder of engine/src may import only the folders listed
 * before it (and itself). A violation prints the rule and both files.
 */

/** engine/src folders, bottom to top (docs/architecture.md "Layers"). */
const ENGINE_LAYERS = [
  'core', 'net', 'store', // foundations: data and text, egress, the storage port
  'analyzers', // inputs into units
  'rules', 'checks', // built-in rulesets and their deterministic checks
  'llm', // models
  'context', // what every service receives
  'ingest', 'audit', 'telemetry', 'orgs', 'notify', 'custom-rules', 'findings', 'usage', // records
  'analysis', // orchestration
  'report', 'identity', 'integrations', 'codehost', // outputs, tenants, integrations
  'stores.ts', 'admin', // the composition root: every typed store on one port; platform administration
];

const esc = (s) => s.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&');
/** A layer is a folder (`name/`) or a file (`name.ts`); tests beside the code may import anything. */
const layerPath = (root, name) => `^${root}/${esc(name)}${name.endsWith('.ts') ? '$' : '(?:/|\\.ts$)'}`;
const TESTS = '\\.test\\.tsx?$';
function layerRules(prefix, root, layers) {
  return layers.map((name, i) => ({
    name: `${prefix}-layer-${name.replace(/\.ts$/, '')}`,
    comment: `${root}/${name} may import only the layers listed before it (docs/architecture.md "Layers")`,
    severity: 'error',
    from: { path: layerPath(root, name), pathNot: TESTS },
    to: { path: layers.slice(i + 1).map((n) => layerPath(root, n)).join('|') || '$^' },
  }));
}
const engineLayerRules = layerRules('engine', 'engine/src', ENGINE_LAYERS);

/** server/src folders and root files, bottom to top. */
const SERVER_LAYERS = [
  'version.ts', 'config', 'logging.ts', // facts read at start
  'http', 'auth', 'jobs', // route declarations and errors; principals and sessions; the job runner
  'services.ts', 'codehost', 'tasks', // what routes receive; the GitHub side; scheduled platform tasks
  'routes', 'mcp', // the API and the MCP transport over it
  'banner.ts', 'app.ts', 'server.ts', 'main.ts', 'cli', // composition and entry points
];
const serverLayerRules = layerRules('server', 'server/src', SERVER_LAYERS);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Modules that import each other, directly or through others.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...engineLayerRules,
    {
      name: 'engine-stays-below-server-and-apps',
      comment: 'The engine imports nothing of the server or the apps.',
      severity: 'error',
      from: { path: '^engine/' },
      to: { path: '^(server|apps)/' },
    },
    ...serverLayerRules,
    {
      name: 'server-stays-below-apps',
      severity: 'error',
      from: { path: '^server/' },
      to: { path: '^apps/' },
    },
    {
      name: 'renderer-not-main-process',
      comment: 'The dashboard (also the desktop renderer) never imports the Electron main process.',
      severity: 'error',
      from: { path: '^apps/web/' },
      to: { path: '^apps/desktop/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'product-not-tests',
      comment: 'Product code never imports a test, a test helper or a fixture.',
      severity: 'error',
      from: { path: '^(engine|server|apps)/', pathNot: '(\\.test\\.tsx?$|/testing/)' },
      to: { path: '(^tests/|\\.test\\.tsx?$|/testing/)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|out)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.mts', '.js', '.mjs', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
