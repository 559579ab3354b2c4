/**
 * `svc/portal`: what another Node portal, or a portlet, takes from svc's portlet adapter: the
 * portlet API, the v2 assertion signer (SPEC 9) and the gateway client, and the portal driver.
 *
 * @example
 *   import { signPrincipalAssertion } from 'svc/portal';
 *   headers['X-Svc-Principal'] = signPrincipalAssertion({ portalId, secret, user: { contextId, uniqueId },
 *     visitor: sessionHandle, address: browserIp, method: 'GET', pathAndQuery: '/gw/api/session' });
 */
export * from './api';
export { ASSERTION_HEADER, GATEWAY_ATTRIBUTE, GatewayClient, SECOND_FACTOR_PAGE_ATTRIBUTE, SvcClientError, SvcGateway, apiPath, signPrincipalAssertion } from './gateway-client';
export type { Evaluation, GatewayClientOptions, GatewayPrincipal, GatewayRequest, GatewayResponse, SvcErrorCode, SvcSessionInfo } from './gateway-client';
export { buildPortalConfig, loadPortalConfigFile, portalConfigSchema, PortalConfigError, startPortal, type PortalConfig, type RunningPortal } from './portal';
export { DescriptorError, portletDescriptorSchema } from './container';
/** Escaping for the markup portlets write (`html` escapes every interpolation). */
export { escapeHtml, html, Html } from '../../common/src/html';
