// Generated from the Go types by backend/tsgen (make types). DO NOT EDIT.

export namespace sample {
  /** Color is a named string type with constants: a union. */
  export type Color = 'red' | 'green';

  /** Custom writes its own JSON. */
  export interface Custom {
    kept: string[];
    /** Added by MarshalJSON. */
    added?: string;
    /** members this version does not know, kept as they are */
    [extra: string]: unknown;
  }

  /** Inner is embedded in Outer: its fields are Outer's. */
  export interface Inner {
    depth: number;
    shade: sample.Color;
    clash: string;
    /** Other's has the same name and depth: both left out */
    tie: string;
    /** Other's is tagged with this name: it wins */
    Both: string;
  }

  /** Outer has one field of each kind the JSON encoder treats apart. */
  export interface Outer {
    depth: number;
    shade: sample.Color;
    Both?: boolean;
    /** Clash here hides Inner's. */
    clash: boolean;
    /** no tag: its Go name */
    Plain: string;
    optional?: sample.Inner;
    nullable: sample.Inner | null;
    list: sample.Color[] | null;
    fixed: number[];
    bytes: string | null;
    by_name: Record<string, number> | null;
    any: unknown;
    quoted: string;
    when: string;
    raw?: unknown;
    /** a TextMarshaler: a string */
    addr: string;
    anonymous: { X: number; };
    pointers?: (sample.Inner | null)[];
    who: string;
    'odd-key': string;
    custom: sample.Custom;
    nested: Record<string, string[] | null> | null;
  }
}

// The bound methods, as Wails exposes them on window.go; a Go error
// rejects the promise with its text.
// Their results are JSON of the Go types above: any, typed by each function.
type Binding = (...args: unknown[]) => Promise<any>;
declare global {
  interface Window {
    go: { sample: { Service: Record<string, Binding> } };
  }
}
const bound = (method: string): Binding => window.go.sample.Service[method];

/** Get returns the outer value for id. */
export function Get(id: string, c: sample.Color): Promise<sample.Outer> {
  return bound('Get')(id, c);
}

/** Ping has no result. */
export function Ping(): Promise<void> {
  return bound('Ping')();
}

/** Put stores it. */
export function Put(o: sample.Outer | null): Promise<void> {
  return bound('Put')(o);
}
