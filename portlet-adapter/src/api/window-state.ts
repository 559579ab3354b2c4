/**
 * `javax.portlet.WindowState`: how much of the page a portlet window takes. Names compare
 * case-insensitively; `WindowState.of('Maximized') === WindowState.MAXIMIZED`.
 */
export class WindowState {
  static readonly NORMAL = new WindowState('normal');
  static readonly MAXIMIZED = new WindowState('maximized');
  static readonly MINIMIZED = new WindowState('minimized');

  private constructor(private readonly name: string) {}

  /** The standard state for a name (any letter case), or a new custom state. */
  static of(name: string): WindowState {
    const lower = name.toLowerCase();
    return STANDARD.find((state) => state.name === lower) ?? new WindowState(lower);
  }

  equals(other: WindowState | string | null | undefined): boolean {
    if (other === null || other === undefined) return false;
    return this.name === (typeof other === 'string' ? other.toLowerCase() : other.name);
  }

  toString(): string {
    return this.name;
  }
}

const STANDARD = [WindowState.NORMAL, WindowState.MAXIMIZED, WindowState.MINIMIZED];
