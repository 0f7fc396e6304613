// Owns the MCP client's event listeners: a page's callbacks, called in order, where one that
// throws does not stop the others (a page's bug must not stop the client's own work).

export class Listeners {
  constructor() {
    this.list = [];
  }

  /** Adds `listener`; returns a function that removes it. */
  add(listener) {
    this.list.push(listener);
    return () => {
      const at = this.list.indexOf(listener);
      if (at !== -1) this.list.splice(at, 1);
    };
  }

  emit(event) {
    for (const listener of [...this.list]) {
      try {
        listener(event);
      } catch {
        // A page listener's failure must not stop the others.
      }
    }
  }
}
