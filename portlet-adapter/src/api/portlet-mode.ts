/**
 * `javax.portlet.PortletMode`: the function a portlet performs. Names compare case-insensitively
 * (JSR-168 PLT.8); `PortletMode.of('Edit') === PortletMode.EDIT`, so `===` works for the three
 * standard modes, across copies of this API too. A custom mode is any other name (this portal supports none).
 */
import { processWide } from '../../../common/src/cross-copy-identity';

const STANDARD_KEY = Symbol.for('svc.portlet-api.PortletMode');

export class PortletMode {
  static readonly VIEW = PortletMode.standard('view');
  static readonly EDIT = PortletMode.standard('edit');
  static readonly HELP = PortletMode.standard('help');

  private constructor(private readonly name: string) {}

  /** A standard mode: one instance in the process, whichever copy of this API asks (common/src/cross-copy-identity.ts). */
  private static standard(name: string): PortletMode {
    return processWide(STANDARD_KEY, name, () => new PortletMode(name));
  }

  /** The standard mode for a name (any letter case), or a new custom mode. */
  static of(name: string): PortletMode {
    const lower = name.toLowerCase();
    return STANDARD.find((mode) => mode.name === lower) ?? new PortletMode(lower);
  }

  equals(other: PortletMode | string | null | undefined): boolean {
    if (other === null || other === undefined) return false;
    return this.name === (typeof other === 'string' ? other.toLowerCase() : other.name);
  }

  toString(): string {
    return this.name;
  }
}

const STANDARD = [PortletMode.VIEW, PortletMode.EDIT, PortletMode.HELP];
