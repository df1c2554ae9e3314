// The memory store runs the shared contract; its second handle is a real one (openHandle), so
// the race and ownership cases race two handles on the same sessions.

import { MemoryLogStore } from '../../src/store/memory/memory-store.js';
import { describeBranchContract } from '../contract/branch-contract.js';
import { describeCheckpointContract } from '../contract/checkpoint-contract.js';
import { describeLogStoreContract } from '../contract/log-store-contract.js';
import { describeSearchContract } from '../contract/search-contract.js';

describeLogStoreContract('memory', async () => {
  const store = new MemoryLogStore();
  const seconds: MemoryLogStore[] = [];
  return {
    store,
    openSecond: async () => {
      const second = store.openHandle();
      seconds.push(second);
      return second;
    },
    cleanup: async () => {
      for (const second of seconds) await second.close();
      await store.close();
    },
  };
});

describeCheckpointContract('memory', async () => ({ store: new MemoryLogStore(), cleanup: async () => {} }));

describeSearchContract('memory', async () => ({ store: new MemoryLogStore(), cleanup: async () => {} }));

describeBranchContract('memory', async () => {
  const store = new MemoryLogStore();
  return { store, openSecond: async () => store.openHandle(), cleanup: async () => store.close() };
});
