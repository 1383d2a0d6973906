// .lua files are bundled as text (tsup `loader`, the vitest `lua-text` plugin).
declare module '*.lua' {
  const source: string;
  export default source;
}
