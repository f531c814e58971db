//! A per-kernel profile: the entry program's steps run one at a time and timed, to see which
//! kernels dominate a program's time. Over several rounds each step's time is the median of
//! its rounds, and every round's values go back to the storage pool at its end, so the
//! rounds after the first allocate the way a steady run does (a single round faults every
//! result in afresh: the transformer training step's steps summed to 391 ms alone against a
//! 200 ms steady run).
//!
//! The steps run through the program's own runner ([`Program::run_timed`]), so operands are
//! handed over at their last use and dead values freed as in a normal run: a kernel that
//! updates a dying operand in place is timed doing so. Control flow (`while`, `case`) and calls
//! are timed as one step each, and steps that a normal run starts two at a time
//! (`StepTime::paired`) are timed one after the other.

use crate::buffer::Buffer;
use crate::error::{Result, RuntimeError};
use crate::executable::Executable;
use systolic_cpu::program::Program;
use systolic_cpu::{CpuBuffer, RtValue, ValueArg};

/// The time of one step.
#[derive(Clone, Debug, PartialEq)]
pub struct StepTime {
    /// The kernel's description (`dot_general f32[1024,784]x[784,1024]`).
    pub kernel: String,
    /// The op it came from (`stablehlo.dot_general`, `systolic.fusion`).
    pub op: String,
    /// Milliseconds.
    pub ms: f64,
    /// In a normal run this step runs at the same time as a neighbour (independent steps of
    /// similar cost are paired, see `systolic_cpu::schedule`); here it was timed alone.
    pub paired: bool,
}

/// The steps of a profiled program, in program order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    /// One entry per step (constants included, at ~0 ms).
    pub steps: Vec<StepTime>,
    /// Rounds run: each step's time is the median of this many.
    rounds: usize,
}

impl Profile {
    /// The sum of the step times.
    pub fn total_ms(&self) -> f64 {
        self.steps.iter().map(|s| s.ms).sum()
    }

    /// Number of rounds each step's time is the median of.
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// The `n` slowest steps, slowest first.
    pub fn slowest(&self, n: usize) -> Vec<&StepTime> {
        let mut steps: Vec<&StepTime> = self.steps.iter().collect();
        steps.sort_by(|a, b| b.ms.total_cmp(&a.ms));
        steps.truncate(n);
        steps
    }

    /// Time per op kind (`systolic.fusion`, `stablehlo.dot_general`), largest first.
    pub fn by_op(&self) -> Vec<(String, f64, usize)> {
        let mut totals: Vec<(String, f64, usize)> = vec![];
        for s in &self.steps {
            match totals.iter_mut().find(|(op, _, _)| *op == s.op) {
                Some(t) => {
                    t.1 += s.ms;
                    t.2 += 1;
                }
                None => totals.push((s.op.clone(), s.ms, 1)),
            }
        }
        totals.sort_by(|a, b| b.1.total_cmp(&a.1));
        totals
    }
}

impl Executable {
    /// Runs once on `args` (left valid), timing every step of the entry program: the same
    /// as [`Executable::profile_rounds`] with one round.
    ///
    /// ```
    /// use systolic_runtime::{Client, CompileOptions};
    /// use systolic_ir::Tensor;
    /// let module = systolic_ir::text::parse_module(
    ///     "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    ///        %0 = stablehlo.sine %a : tensor<2xf32>
    ///        return %0 : tensor<2xf32>
    ///      }",
    ///     "sine",
    /// ).unwrap();
    /// let client = Client::cpu();
    /// let exe = client.compile(&module, &CompileOptions::no_disk_cache()).unwrap();
    /// let a = client.buffer_from_tensor(Tensor::from_f32(vec![2], vec![0.0, 1.0]), exe.device()).unwrap();
    /// let profile = exe.profile(&[&a]).unwrap();
    /// assert_eq!(profile.steps.len(), exe.program().steps().len());
    /// assert!(profile.total_ms() >= 0.0);
    /// ```
    pub fn profile(&self, args: &[&Buffer]) -> Result<Profile> {
        self.profile_rounds(args, 1)
    }

    /// Runs `rounds` times (at least once) on `args` (left valid), timing every step of the
    /// entry program; each step's time is the median of its rounds.
    ///
    /// ```
    /// use systolic_runtime::{Client, CompileOptions};
    /// use systolic_ir::Tensor;
    /// let module = systolic_ir::text::parse_module(
    ///     "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    ///        %0 = stablehlo.exponential %a : tensor<2xf32>
    ///        %1 = stablehlo.sine %0 : tensor<2xf32>
    ///        return %1 : tensor<2xf32>
    ///      }",
    ///     "sine",
    /// ).unwrap();
    /// let client = Client::cpu();
    /// let exe = client.compile(&module, &CompileOptions::no_disk_cache()).unwrap();
    /// let a = client.buffer_from_tensor(Tensor::from_f32(vec![2], vec![0.0, 1.0]), exe.device()).unwrap();
    /// let profile = exe.profile_rounds(&[&a], 5).unwrap();
    /// assert_eq!(profile.rounds(), 5);
    /// assert_eq!(profile.steps.len(), exe.program().steps().len());
    /// ```
    pub fn profile_rounds(&self, args: &[&Buffer], rounds: usize) -> Result<Profile> {
        // `execute` checks the arguments (and warms the caches the way a steady run would).
        self.execute(args)?;
        let data = args
            .iter()
            .map(|b| b.data(String::new()))
            .collect::<Result<Vec<_>>>()?;
        let inputs: Vec<&CpuBuffer> = data.iter().map(|d| d.as_ref()).collect();
        // On the backend's threads, as `execute` runs (they flush denormals in hardware).
        let program = self.program();
        let rounds = rounds.max(1);
        systolic_cpu::threads::run(|| {
            let runs = (0..rounds)
                .map(|_| profile_program(program, &inputs))
                .collect::<std::result::Result<Vec<_>, String>>()?;
            Ok::<_, String>(median_profile(runs))
        })
        .map_err(|message| RuntimeError::Execute {
            entry: self.entry().to_string(),
            message: format!("profile: {message}"),
        })
    }
}

/// Runs `program` on `inputs` one step at a time, timing each ([`Program::run_timed`]: values
/// are handed over and freed as in a run), and gives its outputs back to the pool, as a normal
/// run's dying values are.
fn profile_program(
    program: &Program,
    inputs: &[&CpuBuffer],
) -> std::result::Result<Profile, String> {
    let steps = program.steps();
    let mut ms = vec![0.0; steps.len()];
    let args = inputs.iter().map(|&b| ValueArg::Buffer(b)).collect();
    let outputs = program
        .run_timed(args, &mut |k, t| ms[k] = t)
        .map_err(|e| e.to_string())?;
    for value in outputs {
        if let RtValue::Buffer(b) = value {
            systolic_cpu::pool::recycle(b.into_parts().1);
        }
    }
    Ok(Profile {
        steps: steps
            .iter()
            .zip(ms)
            .enumerate()
            .map(|(k, (step, ms))| StepTime {
                kernel: step.scoped_kernel_name(),
                op: step.op_name.clone(),
                ms,
                paired: program.runs_with_next(k) || (k > 0 && program.runs_with_next(k - 1)),
            })
            .collect(),
        rounds: 1,
    })
}

/// The median of `times` (the mean of the two middle ones for an even count); `None` when
/// there are none. Step times here and the command line's run statistics use it.
pub fn median(times: &[f64]) -> Option<f64> {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// One profile whose step times are the medians of `runs`' (the same program's rounds).
fn median_profile(mut runs: Vec<Profile>) -> Profile {
    let rounds = runs.len();
    let Some(mut first) = runs.pop() else {
        return Profile::default();
    };
    for (k, step) in first.steps.iter_mut().enumerate() {
        let mut times: Vec<f64> = runs.iter().map(|r| r.steps[k].ms).collect();
        times.push(step.ms);
        step.ms = median(&times).unwrap_or(step.ms);
    }
    first.rounds = rounds;
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(times: &[f64]) -> Profile {
        Profile {
            steps: times
                .iter()
                .enumerate()
                .map(|(k, &ms)| StepTime {
                    kernel: format!("k{k}"),
                    op: "systolic.fusion".into(),
                    ms,
                    paired: k == 0,
                })
                .collect(),
            rounds: 1,
        }
    }

    #[test]
    fn each_step_is_the_median_of_its_rounds() {
        // A cold first round (much slower) does not move the median.
        let odd = median_profile(vec![
            round(&[90.0, 5.0]),
            round(&[10.0, 4.0]),
            round(&[11.0, 6.0]),
        ]);
        assert_eq!(odd.rounds(), 3);
        let ms: Vec<f64> = odd.steps.iter().map(|s| s.ms).collect();
        assert_eq!(ms, [11.0, 5.0]);
        assert!(odd.steps[0].paired && odd.steps[1].kernel == "k1");
        let even = median_profile(vec![round(&[1.0]), round(&[3.0])]);
        assert_eq!((even.rounds(), even.steps[0].ms), (2, 2.0));
        assert_eq!(median_profile(vec![]).rounds(), 0);
    }
}
