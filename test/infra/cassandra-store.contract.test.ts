// The store port's contract (test/infra/store-contract.ts), run against the Cassandra store
// on a real Cassandra 5.0: each block of the suite gets a fresh world in the run's shared keyspace.
import { openCassandraStore } from '../../infra/store/cassandra-store';
import { useCassandra } from '../support/cassandra';
import { describeStoreContract } from './store-contract';

describe('Cassandra store through the port alone', function () {
  const cassandra = useCassandra();

  describeStoreContract('Cassandra', async () => {
    const options = cassandra.options();
    let store = await openCassandraStore(options);
    return {
      store,
      async reopen() {
        await store.close();
        store = await openCassandraStore(options);
        return store;
      },
      close: () => store.close(),
    };
  });
});
