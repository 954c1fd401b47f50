import { describeKeyStoreContract } from '../key-store-contract.ts';
import { openMemoryStore } from './memory-store.ts';

describeKeyStoreContract('MemoryApiKeyStore', openMemoryStore);
