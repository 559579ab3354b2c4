/**
 * `@svc/portlet-api`: what a portlet's own package imports (docs/portlets.md): the portlet API, the
 * gateway client a portlet finds as GATEWAY_ATTRIBUTE, the v2 assertion signer (SPEC 9) and the
 * markup escaping. It leaves out the portal driver and the container (`svc/portal`, the servers'
 * package), so that it installs with undici alone.
 */
export * from './api';
export { ASSERTION_HEADER, GATEWAY_ATTRIBUTE, GatewayClient, SECOND_FACTOR_PAGE_ATTRIBUTE, SvcClientError, apiPath, signPrincipalAssertion } from './gateway-client';
export type { Evaluation, GatewayClientOptions, GatewayPrincipal, GatewayRequest, GatewayResponse, SvcErrorCode, SvcGateway, SvcSessionInfo } from './gateway-client';
/** Escaping for the markup portlets write (`html` escapes every interpolation). */
export { escapeHtml, html, Html } from '../../common/src/html';
