require 'fileutils'
FileUtils.rm_rf('/opt/x')
