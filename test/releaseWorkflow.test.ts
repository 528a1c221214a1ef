import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(new URL(path, new URL(`file://${root}`)), 'utf8');

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, unknown>;
  readonly env?: Record<string, string>;
}
interface Job {
  readonly needs?: string | readonly string[];
  readonly permissions?: Record<string, string>;
  readonly container?: { readonly image?: string };
  readonly steps: readonly Step[];
}
interface Workflow {
  readonly on: { readonly push?: { readonly branches?: readonly string[] } };
  readonly permissions: Record<string, string>;
  readonly jobs: Record<string, Job>;
}

const workflow = parse(read('.github/workflows/release.yml')) as Workflow;
const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

/** A GitHub Actions expression reading the secret `name`. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a template
const secret = (name: string) => '${{ secrets.NAME }}'.replace('NAME', name);

/** The index of the first step matching `test`; -1 when none does. */
const stepIndex = (job: Job, test: (step: Step) => boolean) => job.steps.findIndex(test);
const runs = (command: string) => (step: Step) =>
  step.run?.trim() === command || step.run?.startsWith(`${command} `) === true;
const uses = (action: string) => (step: Step) => step.uses?.split('@')[0] === action;

/** The commands an npm script runs, following `npm run x` into script x. */
function expand(script: string): string {
  return script.replace(/npm run ([\w:-]+)/g, (_, name: string) =>
    expand(scripts[name] ?? `<missing ${name}>`),
  );
}

describe('.github/workflows/release.yml', () => {
  const release = workflow.jobs.release;
  const test = workflow.jobs.test;

  it('runs on a push to main only', () => {
    expect(Object.keys(workflow.on)).toEqual(['push']);
    expect(workflow.on.push?.branches).toEqual(['main']);
  });

  it('grants the release what a version PR and a provenance publish need, and the tests only read', () => {
    expect(workflow.permissions).toEqual({
      contents: 'write',
      'pull-requests': 'write',
      'id-token': 'write',
    });
    expect(release?.permissions).toBeUndefined();
    expect(test?.permissions).toEqual({ contents: 'read' });
  });

  it('tests on Node 22 before anything is released: npm ci, build, the whole suite, the publish dry run', () => {
    if (!test) throw new Error('no test job');
    const node = test.steps.find(uses('actions/setup-node'));
    expect(node?.with?.['node-version']).toBe(22);
    const order = ['npm ci', 'npm run build', 'npm test', 'npm run check:publish'].map((c) =>
      stepIndex(test, runs(c)),
    );
    expect(order.every((i) => i > stepIndex(test, uses('actions/setup-node')))).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(release?.needs).toBe('test');
  });

  it('releases from Node 22 with npm ci and a build, then changesets/action with the version and publish scripts', () => {
    if (!release) throw new Error('no release job');
    const node = release.steps.find(uses('actions/setup-node'));
    expect(node?.with?.['node-version']).toBe(22);
    expect(node?.with?.['registry-url']).toBe('https://registry.npmjs.org');
    const ci = stepIndex(release, runs('npm ci'));
    const build = stepIndex(release, runs('npm run build'));
    const action = stepIndex(release, uses('changesets/action'));
    expect(ci).toBeGreaterThan(stepIndex(release, uses('actions/setup-node')));
    expect(build).toBeGreaterThan(ci);
    expect(action).toBeGreaterThan(build);
    const step = release.steps[action];
    expect(step?.uses).toBe('changesets/action@v1');
    expect(step?.with?.version).toBe('npm run version-packages');
    expect(step?.with?.publish).toBe('npm run release');
    expect(expand('npm run version-packages')).toMatch(
      /^changeset version && npm install --package-lock-only/,
    );
    expect(expand('npm run release')).toBe('changeset publish');
  });

  it('publishes with provenance and the npm token from the secrets, never a token in the file', () => {
    const step = release?.steps.find(uses('changesets/action'));
    expect(step?.env?.NPM_CONFIG_PROVENANCE).toBe('true');
    expect(step?.env?.NPM_TOKEN).toBe(secret('NPM_TOKEN'));
    expect(step?.env?.NODE_AUTH_TOKEN).toBe(secret('NPM_TOKEN'));
    expect(step?.env?.GITHUB_TOKEN).toBe(secret('GITHUB_TOKEN'));
    expect(read('.github/workflows/release.yml')).not.toMatch(/npm_[A-Za-z0-9]{20,}/);
  });

  it('checks out the whole history for the version pull request', () => {
    expect(release?.steps.find(uses('actions/checkout'))?.with?.['fetch-depth']).toBe(0);
  });
});
