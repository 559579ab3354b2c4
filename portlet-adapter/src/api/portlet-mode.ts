/**
 * `javax.portlet.PortletMode`: the function a portlet performs. Names compare case-insensitively
 * (JSR-168 PLT.8); `PortletMode.of('Edit') === PortletMode.EDIT`, so `===` works for the three
 * standard modes. A custom mode is any other name (this portal supports none).
 */
export class PortletMode {
  static readonly VIEW = new PortletMode('view');
  static readonly EDIT = new PortletMode('edit');
  static readonly HELP = new PortletMode('help');

  private constructor(private readonly name: string) {}

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
