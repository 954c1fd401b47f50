import { describeKeyRequestStoreContract } from '../key-request-store-contract.ts';
import { openMemoryStore } from './memory-store.ts';

describeKeyRequestStoreContract('MemoryKeyRequestStore', openMemoryStore);
