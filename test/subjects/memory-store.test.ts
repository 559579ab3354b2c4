import { MemorySubjectStore } from '../../server/src/subjects/memory-store';
import { subjectStoreContract } from './store-contract';

describe('MemorySubjectStore', () => {
  subjectStoreContract({ make: async () => new MemorySubjectStore() });
});
