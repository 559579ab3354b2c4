import { bareExpress } from '../baselines/bare-express';
import { bareHttp } from '../baselines/bare-http';
import { hash } from '../baselines/hash';
import type { Scenario } from '../lib/scenario';
import { certificate } from './certificate';
import { check } from './check';
import { create } from './create';
import { gateway } from './gateway';
import { gatewayMemory } from './gateway-memory';
import { gatewayRedis } from './gateway-redis';
import { ldap } from './ldap';
import { login } from './login';
import { portal } from './portal';
import { portalRequests } from './portal-requests';
import { postgres } from './postgres';
import { read } from './read';
import { scimFilter } from './scim-filter';
import { scimProvisioning } from './scim-provisioning';
import { search } from './search';
import { sessionMemory } from './session-memory';
import { soap } from './soap';
import { versus } from './versus';
import { workers } from './workers';

/**
 * Every scenario in run order; a baseline runs first and close before the rows compared with it
 * (the machine's load drifts during a run: the hash baseline sits right before login). A new scenario is one file exporting a `Scenario`
 * and one line here. The gateway's check runs right after the direct check it is compared with.
 */
export const SCENARIOS: Scenario[] = [bareHttp, bareExpress, check, gateway, gatewayMemory, gatewayRedis, portal, portalRequests, read, soap, search, postgres, scimFilter, scimProvisioning, workers, ldap, create, hash, login, certificate, sessionMemory, versus];
