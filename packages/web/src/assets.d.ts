/** Vite's `?url` imports: the built asset's URL (the wasm files of Perspective). */
declare module '*?url' {
  const url: string;
  export default url;
}
