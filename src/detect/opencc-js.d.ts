// opencc-js ships its character tables as modules without types: each default-exports "from to|from to|…".
declare module 'opencc-js/dict/TSCharacters' {
  const table: string;
  export default table;
}
declare module 'opencc-js/dict/STCharacters' {
  const table: string;
  export default table;
}
