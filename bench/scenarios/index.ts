import { bareExpress } from '../baselines/bare-express';
import { bareHttp } from '../baselines/bare-http';
import { hash } from '../baselines/hash';
import type { Scenario } from '../lib/scenario';
import { check } from './check';
import { create } from './create';
import { login } from './login';
import { read } from './read';
import { search } from './search';
import { sessionMemory } from './session-memory';

/**
 * Every scenario in run order, baselines first. A new scenario is one file exporting a `Scenario`
 * and one line here (the gateway's check, once the gateway exists: `needs: ['check']`, compared
 * with the direct check row).
 */
export const SCENARIOS: Scenario[] = [bareHttp, bareExpress, hash, check, read, search, create, login, sessionMemory];
