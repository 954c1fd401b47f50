import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler, type IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { type IPodDisruptionBudget, PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, type IConfigMap, type IService, Service } from 'kubernetes-models/v1';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { projectRoot } from '../../src/project-root.ts';

/**
 * ops/kubernetes, rendered by `kubectl kustomize` (offline: kustomize is built into kubectl) and
 * each object checked against the Kubernetes schema of its kind by kubernetes-models (Kubernetes
 * 1.33's OpenAPI). That schema checks types, required fields and enumerations but lets unknown
 * fields pass, so every setting that matters is also asserted by value below. Skipped, saying
 * why, without kubectl, unless NERKH_REQUIRE_KUBECTL=1 (CI).
 */
const run = promisify(execFile);
const kubectl = '/usr/bin/kubectl';
const required = process.env.NERKH_REQUIRE_KUBECTL === '1';
const missing = !existsSync(kubectl);
if (missing && !required) {
  process.stdout.write(`Kubernetes manifest tests skipped: ${kubectl} is not installed\n`);
}

type Rendered = { kind: string; apiVersion: string; metadata: { name: string } };

/** The model of each kind the manifests hold, by apiVersion and kind: anything else fails. */
const models: Record<string, (object: Rendered) => { validate(): void }> = {
  'v1/ConfigMap': (object) => new ConfigMap(object as unknown as IConfigMap),
  'v1/Service': (object) => new Service(object as unknown as IService),
  'apps/v1/Deployment': (object) => new Deployment(object as unknown as IDeployment),
  'policy/v1/PodDisruptionBudget': (object) =>
    new PodDisruptionBudget(object as unknown as IPodDisruptionBudget),
  'autoscaling/v2/HorizontalPodAutoscaler': (object) =>
    new HorizontalPodAutoscaler(object as unknown as IHorizontalPodAutoscaler),
};

function modelOf(object: Rendered): { validate(): void } {
  const make = models[`${object.apiVersion}/${object.kind}`];
  if (make === undefined) throw new Error(`no model for ${object.apiVersion} ${object.kind}`);
  return make(object);
}

let objects: Rendered[];
beforeAll(async () => {
  if (missing && !required) return;
  if (missing)
    throw new Error(`kubectl is required (NERKH_REQUIRE_KUBECTL=1) but ${kubectl} is not installed`);
  const { stdout } = await run(kubectl, ['kustomize', join(projectRoot, 'ops', 'kubernetes')]);
  objects = parseAllDocuments(stdout).map((document) => document.toJS() as Rendered);
});

function find<T>(kind: string, name: RegExp | string): T {
  const found = objects.filter(
    (object) =>
      object.kind === kind &&
      (typeof name === 'string' ? object.metadata.name === name : name.test(object.metadata.name)),
  );
  expect(found, `one ${kind} ${name}`).toHaveLength(1);
  return found[0] as T;
}

const deployment = (name: string) => find<IDeployment>('Deployment', name);
const podSpecOf = (name: string) => {
  const spec = deployment(name).spec?.template.spec;
  if (spec === undefined) throw new Error(`${name} has no pod spec`);
  return spec;
};
const containerOf = (name: string) => {
  const [container, ...others] = podSpecOf(name).containers;
  expect(others).toEqual([]);
  if (container === undefined) throw new Error(`${name} has no container`);
  return container;
};
const envOf = (name: string) =>
  Object.fromEntries(
    (containerOf(name).env ?? []).map((variable) => [variable.name, variable.value ?? variable.valueFrom]),
  );

describe.skipIf(missing && !required)('ops/kubernetes, as kubectl kustomize renders it', () => {
  it('renders the API, its Service, budget and autoscaler, the collectors and the two ConfigMaps, and no Secret', () => {
    expect(objects.map((object) => `${object.kind}/${object.metadata.name}`)).toEqual([
      expect.stringMatching(/^ConfigMap\/nerkh-settings-[a-z0-9]{10}$/),
      expect.stringMatching(/^ConfigMap\/nerkh-sources-[a-z0-9]{10}$/),
      'Service/nerkh-api',
      'Deployment/nerkh-api',
      'Deployment/nerkh-collector',
      'PodDisruptionBudget/nerkh-api',
      'HorizontalPodAutoscaler/nerkh-api',
    ]);
  });

  it('holds only objects valid under the Kubernetes schema of their kind', () => {
    for (const object of objects)
      expect(() => modelOf(object).validate(), object.metadata.name).not.toThrow();
  });

  it('is checked by a schema that can fail: a port given as text is refused', () => {
    const broken = structuredClone(deployment('nerkh-api'));
    const container = broken.spec?.template.spec?.containers[0];
    if (container?.ports?.[0] === undefined) throw new Error('no port to break');
    (container.ports[0] as { containerPort: unknown }).containerPort = 'eight thousand';
    expect(() => new Deployment(broken).validate()).toThrow(/containerPort must be integer/);
  });

  it.each(['nerkh-api', 'nerkh-collector'])(
    'runs %s as uid 10001, without privileges, on a read-only root',
    (name) => {
      const pod = podSpecOf(name);
      expect(pod.securityContext).toEqual({
        runAsNonRoot: true,
        runAsUser: 10001,
        runAsGroup: 10001,
        fsGroup: 10001,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(pod.enableServiceLinks).toBe(false);
      const container = containerOf(name);
      expect(container.securityContext).toEqual({
        runAsNonRoot: true,
        runAsUser: 10001,
        runAsGroup: 10001,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(container.resources?.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
      expect(container.resources?.limits).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
      expect(container.image).toBe('nerkh:0.1.0');
      expect(container.args).toEqual(['serve', '--role', name === 'nerkh-api' ? 'api' : 'collector']);
    },
  );

  it('probes /readyz and /livez on the operations port the process listens on', () => {
    for (const name of ['nerkh-api', 'nerkh-collector']) {
      const container = containerOf(name);
      const ops = container.ports?.find((port) => port.name === 'ops');
      expect(ops?.containerPort).toBe(9464);
      expect(envOf(name)).toMatchObject({ NERKH_METRICS_PORT: '9464', NERKH_METRICS_HOST: '0.0.0.0' });
      expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'ops' });
      expect(container.livenessProbe?.httpGet).toEqual({ path: '/livez', port: 'ops' });
    }
    expect(containerOf('nerkh-api').startupProbe?.httpGet).toEqual({ path: '/readyz', port: 'ops' });
    expect(containerOf('nerkh-api').ports?.find((port) => port.name === 'http')?.containerPort).toBe(8080);
    expect(envOf('nerkh-api')).toMatchObject({ PORT: '8080', HOST: '0.0.0.0' });
  });

  it("drains and stops the API within its grace period: the drain plus nerkh's 15 s shutdown bound, with room", () => {
    const drainSeconds = Number(envOf('nerkh-api').NERKH_DRAIN_SECONDS);
    expect(drainSeconds).toBeGreaterThan(0);
    expect(podSpecOf('nerkh-api').terminationGracePeriodSeconds).toBeGreaterThanOrEqual(
      drainSeconds + 15 + 5,
    );
    expect(podSpecOf('nerkh-api').containers[0]?.lifecycle).toBeUndefined();
    expect(deployment('nerkh-api').spec?.strategy?.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
  });

  it('reads the secrets as files from the Secret nerkh, and the settings and sources from the generated ConfigMaps', () => {
    const settings = find<IConfigMap>('ConfigMap', /^nerkh-settings-/);
    const sources = find<IConfigMap>('ConfigMap', /^nerkh-sources-/);
    expect(sources.data).toEqual({
      'sources.yaml': readFileSync(join(projectRoot, 'sources', 'binance-nobitex.yaml'), 'utf8'),
    });
    const files: Record<string, Record<string, string>> = {
      'nerkh-api': {
        NERKH_DATABASE_URL_FILE: 'database-url',
        NERKH_REDIS_URL_FILE: 'redis-url',
        NERKH_FORM_SECRET_FILE: 'form-secret',
      },
      'nerkh-collector': { NERKH_DATABASE_URL_FILE: 'database-url' },
    };
    for (const [name, expected] of Object.entries(files)) {
      const pod = podSpecOf(name);
      const container = containerOf(name);
      const env = envOf(name);
      // No secret's value is in the manifests: only the paths of the files holding them.
      for (const secret of ['NERKH_DATABASE_URL', 'NERKH_REDIS_URL', 'NERKH_FORM_SECRET']) {
        expect(env).not.toHaveProperty(secret);
      }
      for (const [setting, file] of Object.entries(expected))
        expect(env[setting]).toBe(`/run/secrets/nerkh/${file}`);
      expect(pod.volumes?.find((volume) => volume.name === 'secrets')?.secret).toEqual({
        secretName: 'nerkh',
        defaultMode: 0o440,
      });
      expect(container.volumeMounts).toContainEqual({
        name: 'secrets',
        mountPath: '/run/secrets/nerkh',
        readOnly: true,
      });
      expect(container.envFrom).toEqual([{ configMapRef: { name: settings.metadata?.name } }]);
    }
    const collector = podSpecOf('nerkh-collector');
    expect(collector.volumes?.find((volume) => volume.name === 'sources')?.configMap).toEqual({
      name: sources.metadata?.name,
    });
    expect(containerOf('nerkh-collector').volumeMounts).toContainEqual({
      name: 'sources',
      mountPath: '/etc/nerkh/sources',
      readOnly: true,
    });
    expect(envOf('nerkh-collector').NERKH_SOURCES_FILE).toBe('/etc/nerkh/sources/sources.yaml');
  });

  it('points the Service, the budget and the autoscaler at the API pods', () => {
    const apiLabels = deployment('nerkh-api').spec?.template.metadata?.labels;
    const service = find<IService>('Service', 'nerkh-api');
    expect(service.spec?.selector).toEqual(apiLabels);
    expect(service.spec?.ports).toEqual([{ name: 'http', port: 80, targetPort: 'http' }]);
    const budget = find<IPodDisruptionBudget>('PodDisruptionBudget', 'nerkh-api');
    expect(budget.spec?.selector?.matchLabels).toEqual(apiLabels);
    expect(budget.spec?.maxUnavailable).toBe(1);
    const autoscaler = find<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler', 'nerkh-api');
    expect(autoscaler.spec?.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'nerkh-api',
    });
    expect(autoscaler.spec?.minReplicas).toBeGreaterThanOrEqual(2);
    // The autoscaler owns the API's count; the collectors' labels never match the API's selectors.
    expect(deployment('nerkh-api').spec?.replicas).toBeUndefined();
    expect(deployment('nerkh-collector').spec?.replicas).toBe(2);
    expect(deployment('nerkh-collector').spec?.template.metadata?.labels).not.toEqual(apiLabels);
  });
});
