// Runs the store contract on SQLite always and on PostgreSQL (the server .ci/run starts) always.
import { storeContract } from './store.case.js';

storeContract('sqlite');
storeContract('postgres');
