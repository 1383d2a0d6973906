// Express 4 is installed under the alias `express4` so both majors are tested; it has the same call surface.
declare module 'express4' {
  import express from 'express';
  export default express;
}
