/// <reference lib="dom" />
// A list that renders only the rows in view (rows of one fixed height), so that a session of
// 100,000 events opens as fast as one of 100. Keyboard: arrows, Page Up/Down, Home/End move the
// selection; Enter activates; other keys go to the owner (expand, collapse).

export interface VirtualListOptions {
  /** A prefix for the rows' ids (aria-activedescendant). */
  readonly id: string;
  readonly label: string;
  readonly rowHeight: number;
  /** Fills `row` (empty, positioned) for the item at `index`. */
  readonly render: (index: number, row: HTMLElement) => void;
  readonly onSelect?: (index: number) => void;
  /** A key the list does not handle itself; true when the owner handled it. */
  readonly onKey?: (key: string, index: number) => boolean;
}

const OVERSCAN = 8;

export class VirtualList {
  readonly element: HTMLElement;
  private readonly spacer: HTMLElement;
  private count = 0;
  private selectedIndex = -1;
  private scheduled = false;

  constructor(private readonly options: VirtualListOptions) {
    this.element = document.createElement('div');
    this.element.className = 'vlist';
    this.element.id = options.id;
    this.element.tabIndex = 0;
    this.element.setAttribute('role', 'listbox');
    this.element.setAttribute('aria-label', options.label);
    this.spacer = document.createElement('div');
    this.spacer.className = 'vlist-spacer';
    this.element.append(this.spacer);
    this.element.addEventListener('scroll', () => this.schedule());
    this.element.addEventListener('keydown', (event) => this.key(event));
    // A list entered with nothing selected (Enter from the timeline, Tab) selects the first row in
    // view, so that the next key acts on a row: → expands it at once. Not when a pointer enters it:
    // the click selects the row it lands on (rendering the rows again between the press and the
    // release would take the click away from that row).
    let pointerDown = false;
    this.element.addEventListener('pointerdown', () => {
      pointerDown = true;
    });
    this.element.addEventListener('pointerup', () => {
      pointerDown = false;
    });
    this.element.addEventListener('focus', () => {
      if (!pointerDown && this.selectedIndex < 0 && this.count > 0) {
        this.select(Math.floor(this.element.scrollTop / this.options.rowHeight), { scroll: false });
      }
    });
    this.element.addEventListener('click', (event) => {
      const row = (event.target as HTMLElement).closest('[data-index]');
      if (row instanceof HTMLElement) this.select(Number(row.dataset.index), { scroll: false });
    });
  }

  get selected(): number {
    return this.selectedIndex;
  }

  get size(): number {
    return this.count;
  }

  setCount(count: number): void {
    this.count = count;
    this.spacer.style.height = `${count * this.options.rowHeight}px`;
    if (this.selectedIndex >= count) this.selectedIndex = count - 1;
    this.render();
  }

  /** Selects a row (and tells the owner, unless `notify` is false). */
  select(index: number, options: { scroll?: boolean; notify?: boolean } = {}): void {
    if (this.count === 0) return;
    const clamped = Math.max(0, Math.min(this.count - 1, index));
    this.selectedIndex = clamped;
    if (options.scroll !== false) this.scrollToIndex(clamped);
    this.render();
    if (options.notify !== false) this.options.onSelect?.(clamped);
  }

  scrollToIndex(index: number): void {
    const { rowHeight } = this.options;
    const top = index * rowHeight;
    const height = this.element.clientHeight || rowHeight * 20;
    if (top < this.element.scrollTop) this.element.scrollTop = top;
    else if (top + rowHeight > this.element.scrollTop + height) this.element.scrollTop = top + rowHeight - height;
  }

  /** Renders the rows in view again (their content may have changed). */
  render(): void {
    const { rowHeight } = this.options;
    const height = this.element.clientHeight || rowHeight * 40;
    const first = Math.max(0, Math.floor(this.element.scrollTop / rowHeight) - OVERSCAN);
    const last = Math.min(this.count - 1, Math.ceil((this.element.scrollTop + height) / rowHeight) + OVERSCAN);
    const rows: HTMLElement[] = [];
    for (let index = first; index <= last; index++) {
      const row = document.createElement('div');
      row.className = 'vrow';
      row.id = `${this.options.id}-${index}`;
      row.dataset.index = String(index);
      row.setAttribute('role', 'option');
      row.setAttribute('aria-selected', String(index === this.selectedIndex));
      row.style.transform = `translateY(${index * rowHeight}px)`;
      row.style.height = `${rowHeight}px`;
      this.options.render(index, row);
      rows.push(row);
    }
    this.spacer.replaceChildren(...rows);
    if (this.selectedIndex >= first && this.selectedIndex <= last) {
      this.element.setAttribute('aria-activedescendant', `${this.options.id}-${this.selectedIndex}`);
    } else {
      this.element.removeAttribute('aria-activedescendant');
    }
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      this.render();
    });
  }

  private key(event: KeyboardEvent): void {
    const page = Math.max(1, Math.floor((this.element.clientHeight || 400) / this.options.rowHeight) - 1);
    const moves: Record<string, number> = {
      ArrowDown: this.selectedIndex + 1,
      ArrowUp: this.selectedIndex - 1,
      PageDown: this.selectedIndex + page,
      PageUp: this.selectedIndex - page,
      Home: 0,
      End: this.count - 1,
    };
    const target = moves[event.key];
    if (target !== undefined) {
      event.preventDefault();
      this.select(target);
      return;
    }
    if (this.options.onKey?.(event.key, this.selectedIndex) === true) event.preventDefault();
  }
}
