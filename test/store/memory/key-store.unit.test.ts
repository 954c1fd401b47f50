import { openMemoryStore } from '../../support/memory-store.ts';
import { describeKeyStoreContract } from '../key-store-contract.ts';

describeKeyStoreContract('MemoryApiKeyStore', openMemoryStore);
