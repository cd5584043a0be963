// The store port's contract, run against the embedded SQLite store: a real world.sqlite
// (and its writer thread) in a fresh temporary folder for each block of the suite.
import fs from 'fs';
import { SqliteStore } from '../../infra/store/sqlite-store';
import { tempDir } from '../support/world';
import { describeStoreContract } from './store-contract';

describeStoreContract('SQLite', async () => {
  const dir = tempDir('worldsim-store-contract-');
  let store = new SqliteStore(dir);
  return {
    store,
    async reopen() {
      await store.close();
      store = new SqliteStore(dir);
      return store;
    },
    async close() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
