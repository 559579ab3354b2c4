import type { PortletConfig, ResourceBundle } from '../api/portlet-config';
import type { PortletContext } from '../api/portlet-context';
import type { PortletDefinition } from './descriptor/types';

/** One portlet definition as its portlet sees it. */
export class PortletConfigImpl implements PortletConfig {
  readonly #bundle: ResourceBundle;

  constructor(
    private readonly definition: PortletDefinition,
    private readonly context: PortletContext,
  ) {
    const bundle: Record<string, string> = { 'javax.portlet.title': definition.title };
    if (definition.shortTitle !== undefined) bundle['javax.portlet.short-title'] = definition.shortTitle;
    if (definition.keywords !== undefined) bundle['javax.portlet.keywords'] = definition.keywords;
    this.#bundle = Object.freeze(bundle);
  }

  getPortletName(): string {
    return this.definition.name;
  }
  getPortletContext(): PortletContext {
    return this.context;
  }
  getResourceBundle(_locale: string): ResourceBundle {
    return this.#bundle;
  }
  getInitParameter(name: string): string | null {
    return Object.hasOwn(this.definition.initParams, name) ? this.definition.initParams[name] : null;
  }
  getInitParameterNames(): string[] {
    return Object.keys(this.definition.initParams);
  }
}
