/** The few parts of mvdan-sh (mvdan/sh compiled to JavaScript) the gate uses; the package ships no types. */
declare module 'mvdan-sh' {
  /** A syntax node: fields are named as in Go (`Stmts`, `Cmd`, `Args`, …). */
  export interface ShNode {
    [field: string]: unknown;
  }
  export interface ShParser {
    Parse(source: string, name: string): ShNode;
  }
  const sh: {
    syntax: {
      NewParser(...options: unknown[]): ShParser;
      NodeType(node: ShNode): string;
      Walk(node: ShNode, visit: (node: ShNode | null) => boolean): void;
    };
  };
  export default sh;
}
