/**
 * `javax.portlet.WindowState`: how much of the page a portlet window takes. Names compare
 * case-insensitively; `WindowState.of('Maximized') === WindowState.MAXIMIZED`.
 */
import { processWide } from '../../../common/src/cross-copy-identity';

const STANDARD_KEY = Symbol.for('svc.portlet-api.WindowState');

export class WindowState {
  static readonly NORMAL = WindowState.standard('normal');
  static readonly MAXIMIZED = WindowState.standard('maximized');
  static readonly MINIMIZED = WindowState.standard('minimized');

  private constructor(private readonly name: string) {}

  /** A standard state: one instance in the process, whichever copy of this API asks (common/src/cross-copy-identity.ts). */
  private static standard(name: string): WindowState {
    return processWide(STANDARD_KEY, name, () => new WindowState(name));
  }

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
