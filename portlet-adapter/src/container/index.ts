/**
 * The portlet container (SPEC 10.2, after Apache Pluto's `pluto-container`): descriptor,
 * lifecycle, the two phases, preferences, portlet sessions and the render cache. It knows no
 * portal: the driver provides `ContainerServices` and one `PortalRequest` per call.
 */
export { PortletContainer, type ActionOutcome, type ContainerOptions, type Failure, type RenderOutcome } from './portlet-container';
export type { ActionResult } from './action-response-impl';
export type { ActionBody } from './action-request-impl';
export { MemoryApplicationSession } from './application-session';
export { buildDescriptor, loadPortletApplication, DescriptorError, type PortletApplication } from './descriptor/load';
export { portletDescriptorSchema } from './descriptor/schema';
export type { PortletApplicationDescriptor, PortletDefinition } from './descriptor/types';
export { NO_PARAMETERS, toParameters, type Parameters } from './parameters';
export { portletScopedName } from './portlet-session-impl';
export { PortalPreferencesService } from './preferences/portal-preferences-service';
export { MAX_PREFERENCES_BYTES } from './preferences/portlet-preferences-impl';
export { SqlitePreferencesStore } from './preferences/sqlite-preferences-store';
export type * from './services';
export { namespaceOf, type PortletWindow, type WindowRenderState } from './window';
