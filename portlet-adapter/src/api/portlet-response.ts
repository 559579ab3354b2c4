/** `javax.portlet.PortletResponse`: what both phases may answer besides their own parts. */
export interface PortletResponse {
  /** A property for the portal (e.g. `RenderResponse.EXPIRATION_CACHE`); unknown ones are ignored. */
  setProperty(name: string, value: string): void;
  addProperty(name: string, value: string): void;
  /** A URL to a resource of the portal or the application: made absolute under the portal's root when relative. */
  encodeURL(path: string): string;
}
