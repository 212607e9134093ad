/** MemoryEventLog against the EventLog contract (test/log/contract.ts). */
import { abandonProducer } from '../../src/log/memory-event-log.ts';
import { MemoryEventLog } from '../../src/index.ts';
import { logContract } from './contract.ts';

logContract('MemoryEventLog', {
  async make(options = {}) {
    return new MemoryEventLog(options);
  },
  // One process, one log: "another instance" is the same one.
  async peer(log) {
    return log;
  },
  abandon: abandonProducer,
  leaseSlackMs: 200,
});
