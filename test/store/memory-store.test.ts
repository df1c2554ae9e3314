import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { describeLogStoreContract } from '../contract/log-store-contract.js';

describeLogStoreContract('memory', async () => {
  const store = new MemoryLogStore();
  return {
    store,
    // The in-memory store lives in one process: a second handle is the same object.
    openSecond: async () => Object.assign(Object.create(store) as MemoryLogStore, { close: async () => {} }),
    cleanup: () => store.close(),
  };
});
