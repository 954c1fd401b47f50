import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Pipeline, type PipelineTuning, startPipeline } from '../../src/collector/pipeline.ts';
import { loadConfig } from '../../src/config.ts';
import type { Catalog } from '../../src/domain/catalog.ts';
import { createLogger } from '../../src/logger.ts';
import { parseSources } from '../../src/sources/load-sources.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { OpenedStore } from '../../src/store/types.ts';

interface SourcesPipelineOptions {
  catalog: Catalog;
  /** A sources file's text, its URLs already pointing where the test answers. */
  sourcesText: string;
  tuning: PipelineTuning;
  /** Registers a clean-up; the caller runs them, last registered first, when the test ends. */
  onCleanup: (cleanup: () => Promise<void>) => void;
}

/**
 * The collector's whole pipeline (adapters → collector → store) on `sourcesText`, into a SQLite
 * store in a new temporary directory; the directory, the store and the pipeline are registered for
 * clean-up as they are made.
 */
export async function startSourcesPipeline(
  options: SourcesPipelineOptions,
): Promise<{ store: OpenedStore; pipeline: Pipeline }> {
  const { catalog, sourcesText, tuning, onCleanup } = options;
  const dataDir = mkdtempSync(join(tmpdir(), 'nerkh-sources-pipeline-'));
  onCleanup(async () => rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ NERKH_DATA_DIR: dataDir, NERKH_PUBLIC_URL: 'https://rates.example' });
  const store = await openStore(config);
  onCleanup(() => store.close());
  const sources = parseSources(sourcesText, 'sources.yaml', { catalog, env: {} });
  const pipeline = await startPipeline({
    config,
    catalog,
    sources,
    store: store.snapshots,
    logger: createLogger('silent'),
    tuning,
  });
  onCleanup(() => pipeline.stop());
  return { store, pipeline };
}
