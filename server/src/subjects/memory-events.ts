import type { SubjectEventPage, SubjectEvent, SubjectEvents } from './subject-events';

/** Subject events in process memory, beside the memory subject store: oldest first per subject. */
export class MemorySubjectEvents implements SubjectEvents {
  private readonly kept = new Map<string, SubjectEvent[]>();

  async append(context: string, uniqueId: string, event: SubjectEvent): Promise<void> {
    const key = `${context}/${uniqueId}`;
    const list = this.kept.get(key);
    if (list) list.push({ ...event });
    else this.kept.set(key, [{ ...event }]);
  }

  async list(context: string, uniqueId: string, offset: number, quantity: number): Promise<SubjectEventPage> {
    const list = this.kept.get(`${context}/${uniqueId}`) ?? [];
    const newest = [...list].reverse();
    return { events: newest.slice(offset, offset + quantity).map((e) => ({ ...e })), total: list.length };
  }

  async prune(before: string, keep: number): Promise<number> {
    let dropped = 0;
    for (const [key, list] of this.kept) {
      const left = list.filter((e) => e.at >= before).slice(-keep);
      dropped += list.length - left.length;
      if (left.length) this.kept.set(key, left);
      else this.kept.delete(key);
    }
    return dropped;
  }

  async forget(context: string, uniqueId: string): Promise<number> {
    const key = `${context}/${uniqueId}`;
    const dropped = this.kept.get(key)?.length ?? 0;
    this.kept.delete(key);
    return dropped;
  }
}
