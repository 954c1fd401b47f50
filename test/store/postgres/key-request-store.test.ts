import { describe } from 'vitest';
import { skipPostgres } from '../../support/postgres.ts';
import { describeKeyRequestStoreContract } from '../key-request-store-contract.ts';
import { openFreshPostgresStore } from './fresh-store.ts';

describe.skipIf(skipPostgres)('PostgreSQL', () => {
  describeKeyRequestStoreContract('PostgresKeyRequestStore', openFreshPostgresStore);
});
