//! The SPH-kernels lesson: the kernels themselves are [`crate::kernels`]; this module holds the
//! lesson's parameter table.

/// The lesson's parameter: the support radius h (m). The page's control takes its range and default
/// from here (`kernel_parameters()`), and the bindings check h against the same.
pub mod param {
    use crate::params::Param;
    pub const SUPPORT_RADIUS: Param = Param::real("h", 0.01, 10.0, 1.0);
}

/// Every parameter of the lesson, by its public name.
pub const PARAMETERS: &[crate::params::Param] = &[param::SUPPORT_RADIUS];

#[cfg(test)]
mod tests {
    #[test]
    fn the_parameter_table_takes_its_ends_and_defaults_and_refuses_beyond() {
        crate::params::check_table(super::PARAMETERS).unwrap();
    }
}
