// Koa 2 is installed under the alias `koa2` so both majors are tested; it has the same call surface.
declare module 'koa2' {
  import Koa from 'koa';
  export default Koa;
}
