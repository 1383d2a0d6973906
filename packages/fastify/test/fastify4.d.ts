// Fastify 4 is installed under the alias `fastify4` so both majors are tested; it has the same call surface.
declare module 'fastify4' {
  import Fastify from 'fastify';
  export default Fastify;
}
