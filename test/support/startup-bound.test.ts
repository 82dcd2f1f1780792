import { expect } from 'chai';
import { outsideTestBound } from './startup-bound.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('test support: a start outside the running test bound', () => {
  it('lets a start longer than the test bound finish, then gives the test its own bound again', async function () {
    this.timeout(400);
    await outsideTestBound(5_000, () => sleep(700));
    // The start took longer than the whole bound; the test still has its own 400 ms after it.
    await sleep(250);
    expect(this.timeout()).to.be.within(400 + 700, 400 + 2_000);
  });

  it('keeps the bound extended while any of several concurrent starts runs', async function () {
    this.timeout(400);
    await Promise.all([outsideTestBound(5_000, () => sleep(100)), outsideTestBound(5_000, () => sleep(800))]);
    await sleep(250);
  });

  describe('in a hook', () => {
    let started = false;
    before(async function () {
      this.timeout(300);
      await outsideTestBound(5_000, () => sleep(600));
      started = true;
    });

    it('applies to hooks too', () => {
      expect(started).to.equal(true);
    });
  });
});
