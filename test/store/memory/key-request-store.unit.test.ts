import { openMemoryStore } from '../../support/memory-store.ts';
import { describeKeyRequestStoreContract } from '../key-request-store-contract.ts';

describeKeyRequestStoreContract('MemoryKeyRequestStore', openMemoryStore);
